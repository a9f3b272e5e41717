-- default: each firing of the probes given, with who fired it
return {
	help = "each firing of the probes given: time, uid.gid, execname[pid], probe",
	d = function(w)
		return w.probes .. " " .. w.pred .. " { " .. w.hdr .. " }"
	end,
	format = function(r, w)
		return w.prefix(r) .. r.probe.desc
	end,
}
