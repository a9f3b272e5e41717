/* flags: -q -x bufpolicy=fill -x bufsize=4k */
/* stderr: ^dtrace: [0-9]+ drops? on CPU [0-9]+$ */
/*
 * bufpolicy=fill: one 4 KiB buffer per CPU, filled once; then every
 * record drops and the consumer stops, as after exit().  END's records
 * still fit: 80 bytes are kept for them (its 16-byte record and an ERROR
 * record's room), so of the 16-byte tick records 251 fit, 0..250, and
 * END's line comes last.
 */
int i;

tick-1ms
{
	printf("%d\n", i++);
}

END
{
	printf("end\n");
}
