-- write: write(2)s and their sizes: asked, and written
local xw = require "xdtwatch"
return {
	help = "write(2) sizes: the descriptor, bytes asked and bytes written",
	probes = { "syscall::write:entry" },
	d = function(w) return ([[
%s %s { self->xw_fd = arg0; self->xw_ask = arg2; self->xw_in = 1; }
syscall::write:return /self->xw_in/ {
	%s trace(self->xw_fd); trace(self->xw_ask); trace((long)arg0); trace(errno);
	self->xw_in = 0;
}]]):format(w.probes, w.pred, w.hdr) end,
	format = function(r, w)
		return string.format("%swrite fd %d %d bytes %s", w.prefix(r),
			r["self->xw_fd"], r["self->xw_ask"], xw.result(r["(long)arg0"], r.errno))
	end,
}
