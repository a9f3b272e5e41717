// SPDX-License-Identifier: GPL-2.0
/*
 * xdt guest /init: mounts the pseudo filesystems the tracing work needs and
 * the lab disk (at /mnt), and serves the command agent (protocol in agent.h)
 * on the virtio-serial port named "xdt.agent".  The serial console keeps
 * carrying kernel messages only, so the host can scan it for oopses without
 * untangling command output.
 *
 * It is PID 1, so it also reaps every orphan, and it must never exit: a
 * failure to find the agent port drops to a shell on the console instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

static int port_fd = -1;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("xdt-init: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void mount_one(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) < 0 && errno != EBUSY)
		say("mount %s on %s: %s", type, dst, strerror(errno));
}

/*
 * The lab disk (tools/xdtvm.py): ext2 on the first virtio disk, so block I/O
 * has a filesystem to go through.  A guest started without it just has an
 * empty /mnt.  noatime: the image's files have atime == mtime, so relatime
 * would turn the first read of each into an inode write.
 */
static void setup_disk(void)
{
	mkdir("/mnt", 0755);
	if (access("/dev/vda", F_OK) < 0)
		return;
	if (mount("/dev/vda", "/mnt", "ext2", MS_NOATIME, NULL) < 0 &&
	    errno != EBUSY)
		say("mount ext2 /dev/vda on /mnt: %s", strerror(errno));
}

static void setup_fs(void)
{
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("devtmpfs", "/dev", "devtmpfs");
	mount_one("tmpfs", "/tmp", "tmpfs");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs");
	mount_one("tracefs", "/sys/kernel/tracing", "tracefs");
	setup_disk();
}

static void setup_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);

	if (fd < 0)
		return;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
}

/* The port's /dev node is vportNpM; its name lives in sysfs. */
static int open_agent_port(void)
{
	char path[300], name[64];
	uint64_t deadline = now_ms() + 10000;

	do {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			FILE *f;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path),
				 "/sys/class/virtio-ports/%s/name", e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(name, sizeof(name), f) &&
			    strncmp(name, XDT_AGENT_PORT,
				    strlen(XDT_AGENT_PORT)) == 0) {
				int fd;

				fclose(f);
				snprintf(path, sizeof(path), "/dev/%s", e->d_name);
				closedir(d);
				fd = open(path, O_RDWR | O_CLOEXEC);
				if (fd < 0)
					say("open %s: %s", path, strerror(errno));
				return fd;
			}
			fclose(f);
		}
		if (d)
			closedir(d);
		usleep(100000);
	} while (now_ms() < deadline);
	return -1;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static uint32_t get_u32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void send_frame(char type, const void *payload, uint32_t len)
{
	unsigned char hdr[5];

	hdr[0] = (unsigned char)type;
	put_u32(hdr + 1, len);
	if (write_all(port_fd, hdr, 5) || write_all(port_fd, payload, len))
		say("agent port write failed: %s", strerror(errno));
}

static void send_hello(void)
{
	static const char hello[] = "xdt-agent " XDT_AGENT_VERSION;

	send_frame('H', hello, sizeof(hello) - 1);
}

static void send_exit(int how, int32_t code, uint32_t wall_ms)
{
	unsigned char p[9];

	p[0] = (unsigned char)how;
	put_u32(p + 1, (uint32_t)code);
	put_u32(p + 5, wall_ms);
	send_frame('X', p, sizeof(p));
}

/* Reap every zombie (orphans are ours as PID 1); report whether @pid was one. */
static int reap(pid_t pid, int *status)
{
	int found = 0, st;
	pid_t r;

	while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
		if (r == pid) {
			*status = st;
			found = 1;
		}
	}
	return found;
}

struct run_req {
	uint32_t timeout_ms;
	char **argv;
	const unsigned char *in;
	uint32_t in_len;
};

static int parse_run(unsigned char *p, uint32_t len, struct run_req *r)
{
	uint32_t argc, off = 8, i;

	if (len < 8)
		return -1;
	r->timeout_ms = get_u32(p);
	argc = get_u32(p + 4);
	if (argc == 0 || argc > 4096)
		return -1;
	r->argv = calloc(argc + 1, sizeof(char *));
	if (!r->argv)
		return -1;
	for (i = 0; i < argc; i++) {
		unsigned char *nul = memchr(p + off, 0, len - off);

		if (!nul)
			return -1;
		r->argv[i] = (char *)p + off;
		off = (uint32_t)(nul - p) + 1;
	}
	if (len - off < 4)
		return -1;
	r->in_len = get_u32(p + off);
	off += 4;
	if (r->in_len > len - off)
		return -1;
	r->in = p + off;
	return 0;
}

/*
 * Run one command in its own session (so a timeout can kill everything it
 * started), stream its output, and report how it ended.  After the command
 * exits, output still buffered in the pipes is drained; a background child
 * that keeps a pipe open is not waited for once the pipes fall quiet.
 */
static void run_command(struct run_req *r)
{
	int in[2], out[2], err[2], status = 0, how, code, exited = 0;
	uint32_t in_off = 0;
	uint64_t start = now_ms(), quiet_since = 0;
	char buf[16384];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		send_exit(XDT_HOW_NOEXEC, errno, 0);
		return;
	}
	pid = fork();
	if (pid == 0) {
		setsid();
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(r->argv[0], r->argv);
		dprintf(2, "xdt-agent: %s: %s\n", r->argv[0], strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		send_exit(XDT_HOW_NOEXEC, errno, 0);
		close(in[1]);
		close(out[0]);
		close(err[0]);
		return;
	}
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	if (r->in_len == 0) {
		close(in[1]);
		in[1] = -1;
	}

	for (;;) {
		struct pollfd pf[3] = {
			{ .fd = out[0], .events = POLLIN },
			{ .fd = err[0], .events = POLLIN },
			{ .fd = in[1], .events = POLLOUT },
		};
		uint64_t t = now_ms();
		int i, n;

		if (!exited && reap(pid, &status)) {
			exited = 1;
			quiet_since = t;
		}
		if (exited && ((out[0] < 0 && err[0] < 0) || t - quiet_since > 200))
			break;
		if (!exited && r->timeout_ms && t - start >= r->timeout_ms) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			reap(-1, &status);
			send_exit(XDT_HOW_TIMEOUT, (int32_t)r->timeout_ms,
				  (uint32_t)(now_ms() - start));
			goto out;
		}
		n = poll(pf, 3, 20);
		if (n < 0 && errno != EINTR)
			break;
		for (i = 0; i < 2 && n > 0; i++) {
			ssize_t k;

			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = read(pf[i].fd, buf, sizeof(buf));
			if (k > 0) {
				send_frame(i ? 'E' : 'O', buf, (uint32_t)k);
				quiet_since = now_ms();
			} else if (k == 0 || errno != EINTR) {
				close(pf[i].fd);
				if (i)
					err[0] = -1;
				else
					out[0] = -1;
			}
		}
		if (in[1] >= 0 && (pf[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = write(in[1], r->in + in_off, r->in_len - in_off);

			if (k > 0)
				in_off += (uint32_t)k;
			if ((k < 0 && errno != EAGAIN && errno != EINTR) ||
			    in_off == r->in_len) {
				close(in[1]);
				in[1] = -1;
			}
		}
	}
	if (!exited) {
		/* Only reachable if poll failed: don't leave the child behind. */
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (WIFSIGNALED(status)) {
		how = XDT_HOW_SIGNALED;
		code = WTERMSIG(status);
	} else {
		how = XDT_HOW_EXITED;
		code = WEXITSTATUS(status);
	}
	send_exit(how, code, (uint32_t)(now_ms() - start));
out:
	if (in[1] >= 0)
		close(in[1]);
	if (out[0] >= 0)
		close(out[0]);
	if (err[0] >= 0)
		close(err[0]);
}

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	say("power off failed: %s", strerror(errno));
	for (;;)
		pause();
}

static void console_shell(void)
{
	say("no agent port '%s'; starting a shell on the console",
	    XDT_AGENT_PORT);
	for (;;) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			execl("/bin/sh", "sh", NULL);
			_exit(127);
		}
		while (waitpid(-1, &st, 0) != pid)
			;
		sleep(1);
	}
}

static void serve(void)
{
	unsigned char hdr[5], *payload = NULL;

	send_hello();
	for (;;) {
		uint32_t len;
		struct run_req r = { 0 };

		if (read_all(port_fd, hdr, 5)) {
			/* Host went away; wait for the next connection. */
			usleep(100000);
			continue;
		}
		len = get_u32(hdr + 1);
		if (len > XDT_AGENT_MAX_FRAME) {
			say("frame of %u bytes refused", len);
			continue;
		}
		free(payload);
		payload = malloc(len + 1);
		if (!payload || read_all(port_fd, payload, len))
			continue;
		switch (hdr[0]) {
		case 'H':
			send_hello();
			break;
		case 'P':
			power_off();
			break;
		case 'R':
			if (parse_run(payload, len, &r))
				send_exit(XDT_HOW_NOEXEC, EINVAL, 0);
			else
				run_command(&r);
			free(r.argv);
			reap(-1, &(int){ 0 });
			break;
		default:
			say("unknown frame type 0x%02x", hdr[0]);
		}
	}
}

int main(void)
{
	setup_fs();
	setup_console();
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
	setenv("HOME", "/root", 1);
	setenv("TERM", "dumb", 1);
	/* A host that disconnects mid-write must not kill PID 1. */
	signal(SIGPIPE, SIG_IGN);

	port_fd = open_agent_port();
	if (port_fd < 0)
		console_shell();
	say("agent on port %s", XDT_AGENT_PORT);
	serve();
	return 0;
}
