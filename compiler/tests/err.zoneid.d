/*
 * $zoneid is no macro variable in any DTrace (the reference lists $projid
 * and $taskid, not the zone): refused as an unknown one, as DTrace does.
 */
BEGIN { trace($zoneid); }
