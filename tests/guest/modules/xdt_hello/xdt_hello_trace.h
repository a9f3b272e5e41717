/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt_hello's tracepoint: a module tracepoint for rawtp's tests (it appears
 * with the module, in trace-event system "xdt_hello", and goes with it).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xdt_hello

#if !defined(XDT_HELLO_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XDT_HELLO_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(xdt_hello_chain,
	TP_PROTO(int n, int result),
	TP_ARGS(n, result),
	TP_STRUCT__entry(
		__field(int, n)
		__field(int, result)
	),
	TP_fast_assign(
		__entry->n = n;
		__entry->result = result;
	),
	TP_printk("n=%d result=%d", __entry->n, __entry->result)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xdt_hello_trace
#include <trace/define_trace.h>
