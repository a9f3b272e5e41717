/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt guest agent wire protocol, spoken over the virtio-serial port named
 * "xdt.agent".  The host side is tools/xdtvm.py; keep the two in step.
 *
 * Every message is a frame:   u8 type | u32 length (little endian) | payload
 *
 * host -> guest
 *   'H'  ping                      payload empty; answered with 'H'
 *   'R'  run a command             u32 timeout_ms (0 = none) | u32 argc |
 *                                  argc NUL-terminated strings | u32 stdin_len |
 *                                  stdin bytes
 *   'P'  power off                 payload empty; no answer, the VM exits
 *
 * guest -> host
 *   'H'  hello                     "xdt-agent <version>"; sent once when the
 *                                  port is opened and in answer to a ping
 *   'O'  stdout bytes of the running command
 *   'E'  stderr bytes of the running command
 *   'X'  command finished          u8 how | i32 code | u32 wall_ms
 *
 * One command runs at a time; its output streams as 'O'/'E' frames and ends
 * with exactly one 'X'.  'how' says how it ended:
 */
#ifndef XDT_GUEST_AGENT_H
#define XDT_GUEST_AGENT_H

#define XDT_AGENT_PORT		"xdt.agent"
#define XDT_AGENT_VERSION	"1"
#define XDT_AGENT_MAX_FRAME	(64u << 20)

enum xdt_agent_how {
	XDT_HOW_EXITED = 0,	/* code = exit status */
	XDT_HOW_SIGNALED = 1,	/* code = signal number */
	XDT_HOW_TIMEOUT = 2,	/* killed (SIGKILL to its process group) at timeout */
	XDT_HOW_NOEXEC = 3,	/* could not be started; code = errno */
};

#endif
