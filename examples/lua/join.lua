-- join: entry and return records of one kernel function paired in Lua by
-- thread, instead of in D with self-> variables: each call's duration,
-- argument and result.  What D keeps per thread, Lua can join across
-- probes, with any logic it likes.
--   xdt-lua join.lua [FUNCTION [SECONDS]]      (vfs_read, 5)
local xdt = require "xdt"
local fn, secs = arg[1] or "vfs_read", tonumber(arg[2]) or 5

local h = xdt.open()
h:compile(([[
fbt::%s:entry  { trace(tid); trace(timestamp); trace(arg2); }
fbt::%s:return { trace(tid); trace(timestamp); trace((long)arg1); }
]]):format(fn, fn))
h:go()

--[[
Records reach user space one CPU's buffer after another, so a thread
that moved CPUs between its entry and its return can be read return
first.  Each side therefore waits for the other in its own table, and
timestamps decide what pairs (a thread is in one call of fn at a time,
recursion aside).
--]]
local entries, returns = {}, {}		-- tid -> the record waiting
local calls = 0
local function joined(e, r)
	calls = calls + 1
	print(string.format("tid %-6d %s(count %d) = %d in %d ns", r.tid, fn,
		e.arg2, r["(long)arg1"], r.timestamp - e.timestamp))
end
local function record(r)
	if r.probe.name == "entry" then
		local ret = returns[r.tid]
		if ret and ret.timestamp >= r.timestamp then
			returns[r.tid] = nil
			joined(r, ret)
		else
			entries[r.tid] = r
		end
	else
		local e = entries[r.tid]
		if e and e.timestamp <= r.timestamp then
			entries[r.tid] = nil
			joined(e, r)
		else
			returns[r.tid] = r
		end
	end
end
h:loop{ seconds = secs, record = record }
h:stop{ record = record }
local left = 0
for _ in pairs(entries) do left = left + 1 end
io.stderr:write(string.format("%d calls joined, %d entries without a return\n", calls, left))
