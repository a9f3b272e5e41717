-- latency: how long calls of kernel functions take, entry to return, per
-- thread: a log2 histogram and percentiles, computed here in Lua.
-- The probes name functions: fbt::vfs_read, fbt::vfs_read:entry or vfs_read.
local xw = require "xdtwatch"
local function funcs(w)
	local out = {}
	for _, p in ipairs(w.probelist) do
		local parts = {}
		for f in (p .. ":"):gmatch("([^:]*):") do parts[#parts + 1] = f end
		local fn = #parts == 1 and parts[1] or parts[3]
		if not fn or fn == "" or fn:match("[%*%?%[]") then
			error("latency needs function names, not '" .. p .. "'", 0)
		end
		out[#out + 1] = fn
	end
	return out
end
return {
	help = "entry-to-return time of fbt functions: histogram, p50/p90/p99",
	d = function(w)
		local ent, ret = {}, {}
		for _, f in ipairs(funcs(w)) do
			ent[#ent + 1] = "fbt::" .. f .. ":entry"
			ret[#ret + 1] = "fbt::" .. f .. ":return"
		end
		w.dists = {}
		-- a recursive call's innermost level is the one timed
		return ([[
%s %s { self->xw_ts[probefunc] = timestamp; }
%s /self->xw_ts[probefunc]/ {
	trace(probefunc); trace(timestamp - self->xw_ts[probefunc]);
	self->xw_ts[probefunc] = 0;
}]]):format(table.concat(ent, ", "), w.pred, table.concat(ret, ", "))
	end,
	format = function(r, w)
		local f = r.probefunc
		w.dists[f] = w.dists[f] or xw.dist()
		w.dists[f]:add(r["timestamp - self->xw_ts[probefunc]"])
		if w.verbose then
			return string.format("%s %d ns", f, r["timestamp - self->xw_ts[probefunc]"])
		end
	end,
	every = 10,
	report = function(w, final)
		local names = {}
		for f in pairs(w.dists) do names[#names + 1] = f end
		table.sort(names)
		for _, f in ipairs(names) do
			local d = w.dists[f]
			local p50, exact = d:percentile(50)
			print(string.format("\n%s: %d calls, ns: min %d avg %d max %d p50 %d p90 %d p99 %d%s",
				f, d.n, d.min, d.sum // d.n, d.max, p50, d:percentile(90),
				d:percentile(99), exact and "" or " (percentiles sampled)"))
			print(d:histogram())
		end
		io.flush()
	end,
}
