/* args: -x errtags */
/* DTrace refuses a void key (dt_idcook_assc) */
BEGIN { a[(void)0] = 1; }
