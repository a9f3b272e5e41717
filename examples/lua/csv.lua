-- csv: every record of a D program as a CSV row, the header made from
-- the clause's own expressions (r.probe.fields) -- for a spreadsheet,
-- pandas or R.
--   xdt-lua csv.lua [SECONDS] ['D program']
local xdt = require "xdt"
local secs = tonumber(arg[1]) or 5
local prog = arg[2] or [[
syscall::read:return, syscall::write:return /execname != "xdt-lua"/ {
	trace(timestamp); trace(execname); trace(pid); trace(probefunc); trace(arg0);
}]]

local function field(v)
	if type(v) == "table" then v = table.concat(v, " ") end	-- a stack
	v = tostring(v)
	if v:find('[,"\n]') then v = '"' .. v:gsub('"', '""') .. '"' end
	return v
end

local h = xdt.open()
h:compile(prog)
h:go()
local header = {}	-- one per clause: its fields differ
local function record(r)
	local p = r.probe
	if not header[p.clause] then
		header[p.clause] = true
		local names = { "probe" }
		for i, f in ipairs(p.fields) do names[#names + 1] = field(f or ("value" .. i)) end
		print(table.concat(names, ","))
	end
	local row = { field(p.desc) }
	for i = 1, #r do row[#row + 1] = field(r[i]) end
	print(table.concat(row, ","))
end
h:loop{ seconds = secs, record = record }
h:stop{ record = record }
