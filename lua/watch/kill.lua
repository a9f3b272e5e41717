-- kill: signals sent with kill(2): by whom, to whom, which, and the result
local xw = require "xdtwatch"
local names = { [1] = "HUP", [2] = "INT", [3] = "QUIT", [6] = "ABRT", [9] = "KILL",
	[10] = "USR1", [12] = "USR2", [13] = "PIPE", [14] = "ALRM", [15] = "TERM",
	[17] = "CHLD", [18] = "CONT", [19] = "STOP", [20] = "TSTP" }
return {
	help = "kill(2): the signal, the target pid, and the result",
	probes = { "syscall::kill:entry" },
	d = function(w) return ([[
%s %s { self->xw_to = (int)arg0; self->xw_sig = (int)arg1; self->xw_in = 1; }
syscall::kill:return /self->xw_in/ {
	%s trace(self->xw_sig); trace(self->xw_to); trace((int)arg0); trace(errno);
	self->xw_in = 0;
}]]):format(w.probes, w.pred, w.hdr) end,
	format = function(r, w)
		local sig = r["self->xw_sig"]
		return string.format("%skill -%s %d %s", w.prefix(r), names[sig] or sig,
			r["self->xw_to"], xw.result(r["(int)arg0"], r.errno))
	end,
}
