/* flags: -q -x bufpolicy=fill -x bufsize=4k */
/* stderr: ^dtrace: [0-9]+ drops? on CPU [0-9]+$ */
/* cpu: 0 */
/*
 * bufpolicy=fill: one 4 KiB buffer per CPU, filled once; then every
 * record drops and the consumer stops, as after exit().  END's records
 * still fit: 80 bytes are kept for them (its 16-byte record and an ERROR
 * record's room), so of the 16-byte tick records 251 fit, 0..250, and
 * END's line comes last -- if END fires on the CPU the ticks fill: the
 * consumer prints the CPUs' buffers in CPU order, and the tick's timer
 * (armed by GO) and END (fired by STOP) run where dtrace runs, so dtrace
 * runs on CPU 0 only (on aarch64's slow debug kernel they once did not
 * share a CPU, and END's line came first).
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
