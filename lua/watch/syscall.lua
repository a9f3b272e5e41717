-- syscall: system calls counted by process and call, the top of the table
-- every second and the whole of it at the end
local top = tonumber(os.getenv("XDT_WATCH_TOP")) or 10
local function table_of(w, n)
	local a = w.handle:aggregations()["calls"]
	local rows = {}
	-- DTrace's order is ascending: the biggest counts are last
	for i = #(a or {}), 1, -1 do
		local e = a[i]
		rows[#rows + 1] = string.format("%-16s %-20s %10d", e.keys[1], e.keys[2], e.value)
		if n and #rows == n then break end
	end
	return rows
end
return {
	help = "system calls counted by execname and call (top " .. top .. " each second, all at the end)",
	probes = { "syscall:::entry" },
	d = function(w) return ([[
%s %s { @calls[execname, probefunc] = count(); }]]):format(w.probes, w.pred) end,
	every = 1,
	report = function(w, final)
		local rows = table_of(w, not final and top or nil)
		print(string.format("%s%-16s %-20s %10s", final and "" or "\n",
			"EXECNAME", "SYSCALL", "COUNT"))
		for _, l in ipairs(rows) do print(l) end
		io.flush()
	end,
}
