-- topn: the processes making the most system calls, a live table
-- refreshed every second (a top(1) of system calls).
--   xdt-lua topn.lua [N [SECONDS]]     N rows (10), for SECONDS (until ^C)
local xdt = require "xdt"
local n, secs = tonumber(arg[1]) or 10, tonumber(arg[2])

local h = xdt.open()
h:setopt("aggrate", "10hz")
h:compile[[syscall:::entry { @calls[execname, pid] = count(); }]]
h:go()

local function show(t)
	local calls = h:aggregations().calls or {}
	local rows = {}
	-- entries come in DTrace's order, smallest first
	for i = #calls, math.max(1, #calls - n + 1), -1 do
		local e = calls[i]
		rows[#rows + 1] = string.format("%-16s %8d %10d", e.keys[1], e.keys[2], e.value)
	end
	-- a terminal gets the table redrawn in place; a pipe, one after another
	if os.getenv("TERM") and os.getenv("TERM") ~= "dumb" then io.write("\27[H\27[2J") end
	io.write(string.format("%.0f s: top %d of %d\n%-16s %8s %10s\n", t, #rows, #calls,
		"EXECNAME", "PID", "SYSCALLS"), table.concat(rows, "\n"), "\n\n")
	io.flush()
end

h:loop{ every = 1, tick = show, seconds = secs }
h:stop()
