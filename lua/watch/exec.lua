-- exec: the programs started, with their arguments
return {
	help = "programs executed: the new image's arguments, by whom",
	probes = { "proc:::exec-success" },
	d = function(w) return ([[
%s %s { %s trace(curpsinfo->pr_psargs); }]]):format(w.probes, w.pred, w.hdr) end,
	format = function(r, w)
		return w.prefix(r) .. r["curpsinfo->pr_psargs"]
	end,
}
