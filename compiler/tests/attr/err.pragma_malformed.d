/* flags: -x errtags */
#pragma D attributes Stable/Stable/Common
