-- open: the files opened, by whom, with the result
local xw = require "xdtwatch"
return {
	help = "files opened: path, by whom, and the result (fd or errno)",
	-- open* matches open(2) where the ISA has it and openat(2) everywhere;
	-- the path is the first or second argument
	probes = { "syscall::open*:entry" },
	d = function(w) return ([[
%s /(probefunc == "open" || probefunc == "openat") && %s/ {
	self->xw_path = copyinstr(probefunc == "open" ? arg0 : arg1);
	self->xw_in = 1;
}
syscall::open*:return /self->xw_in/ {
	%s trace(probefunc); trace(self->xw_path); trace((int)arg0); trace(errno);
	self->xw_in = 0; self->xw_path = 0;
}]]):format(w.probes, w.cond, w.hdr) end,
	format = function(r, w)
		return w.prefix(r) .. r.probefunc .. " " .. r["self->xw_path"] .. " " ..
			xw.result(r["(int)arg0"], r.errno)
	end,
}
