/* args: read kernel 5 x */
/*
 * Macro arguments in probe descriptions are pasted as text, as DTrace's
 * dtrace_xstr2desc() pastes them: $N or $$N (the same here), with text
 * before it and after a number, the first '$' of each field only, $0
 * the script's name.
 */
syscall::$1:entry,
syscall::$$1:return,
fbt:$2:vfs_$1:entry,
profile:::tick-$3s,
profile-$3,
pid$3:$2_$4:$1$1:entry,
$4::$0:
{
}
