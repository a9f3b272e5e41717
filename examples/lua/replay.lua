-- replay: a run saved with `dtrace -x oformat=json -o FILE` (docs/json.md)
-- read back, on the host or a guest: records counted by probe, each
-- aggregation's entries, the faults and drops.  The same Lua that watches
-- a live run can study a saved one.
--   xdt-lua replay.lua FILE
local json = require "xdtjson"
local file = arg[1] or error("usage: xdt-lua replay.lua FILE.json", 0)

local probes, order, faults, drops = {}, {}, 0, 0
for o in json.lines(file) do
	if o.type == "probe" then
		local d = table.concat({ o.provider, o.module, o["function"], o.name }, ":")
		if not probes[d] then probes[d] = 0; order[#order + 1] = d end
		probes[d] = probes[d] + 1
	elseif o.type == "aggregation" then
		print(string.format("@%s = %s(), %d entries", o.name, o["function"], #o.entries))
		for _, e in ipairs(o.entries) do
			local keys = {}
			for i, k in ipairs(e.keys) do keys[i] = tostring(k) end
			local v = e.value
			if e.buckets then
				local b = {}
				for _, x in ipairs(e.buckets) do b[#b + 1] = x.value .. ":" .. x.count end
				v = "{" .. table.concat(b, " ") .. "}"
			end
			print(string.format("  [%s] %s", table.concat(keys, ", "), tostring(v)))
		end
	elseif o.type == "error" then
		faults = faults + 1
	elseif o.type == "drop" then
		drops = drops + o.count
	end
end
for _, d in ipairs(order) do print(string.format("%8d %s", probes[d], d)) end
print(string.format("%d faults, %d drops", faults, drops))
