-- xdtjson: read what `dtrace -x oformat=json` wrote (docs/json.md), so a
-- saved run can be studied later, on the host's xdt-lua too:
--   for obj in require("xdtjson").lines("run.json") do ... end
-- A complete JSON decoder (RFC 8259) of about a hundred lines: objects
-- become tables, arrays sequences, integers Lua integers, null
-- xdtjson.null.  xdt's encoder writes every object on one line (JSON
-- Lines), so lines() decodes line by line.
local M = { null = setmetatable({}, { __tostring = function() return "null" end }) }

local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f",
	n = "\n", r = "\r", t = "\t" }

local function fail(s, i, what)
	error(string.format("json: %s at byte %d", what, i), 0)
end

local function ws(s, i)
	return s:find("[^ \t\r\n]", i) or #s + 1
end

local value

local function str(s, i)
	local out, j = {}, i + 1
	while true do
		local k = s:find('["\\]', j)
		if not k then fail(s, i, "unterminated string") end
		out[#out + 1] = s:sub(j, k - 1)
		if s:sub(k, k) == '"' then return table.concat(out), k + 1 end
		local c = s:sub(k + 1, k + 1)
		if c == "u" then
			local cp = tonumber(s:sub(k + 2, k + 5), 16)
			if not cp then fail(s, k, "bad \\u escape") end
			j = k + 6
			-- a surrogate pair is one code point
			if cp >= 0xd800 and cp < 0xdc00 and s:sub(j, j + 1) == "\\u" then
				local lo = tonumber(s:sub(j + 2, j + 5), 16)
				if lo and lo >= 0xdc00 and lo < 0xe000 then
					cp = 0x10000 + (cp - 0xd800) * 0x400 + (lo - 0xdc00)
					j = j + 6
				end
			end
			out[#out + 1] = utf8.char(cp)
		elseif escapes[c] then
			out[#out + 1] = escapes[c]
			j = k + 2
		else
			fail(s, k, "bad escape")
		end
	end
end

local function num(s, i)
	local t = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", i)
	if not t or t == "" or t == "-" then fail(s, i, "bad number") end
	return math.tointeger(tonumber(t)) or tonumber(t), i + #t
end

local function seq(s, i, close, item)
	i = ws(s, i + 1)
	if s:sub(i, i) == close then return i + 1 end
	while true do
		i = item(s, i)
		i = ws(s, i)
		local c = s:sub(i, i)
		if c == close then return i + 1 end
		if c ~= "," then fail(s, i, "expected ',' or '" .. close .. "'") end
		i = ws(s, i + 1)
	end
end

function value(s, i)
	i = ws(s, i)
	local c = s:sub(i, i)
	if c == "{" then
		local t = {}
		i = seq(s, i, "}", function(s, j)
			if s:sub(j, j) ~= '"' then fail(s, j, "expected a member name") end
			local k
			k, j = str(s, j)
			j = ws(s, j)
			if s:sub(j, j) ~= ":" then fail(s, j, "expected ':'") end
			t[k], j = value(s, j + 1)
			return j
		end)
		return t, i
	elseif c == "[" then
		local t = {}
		i = seq(s, i, "]", function(s, j)
			t[#t + 1], j = value(s, j)
			return j
		end)
		return t, i
	elseif c == '"' then
		return str(s, i)
	elseif s:find("^true", i) then return true, i + 4
	elseif s:find("^false", i) then return false, i + 5
	elseif s:find("^null", i) then return M.null, i + 4
	end
	return num(s, i)
end

-- One JSON text: its value (an error names the byte where it went wrong)
function M.decode(s)
	local v, i = value(s, 1)
	if ws(s, i) <= #s then fail(s, i, "trailing text") end
	return v
end

-- The objects of a JSON Lines file (or an open file), one per line
function M.lines(f)
	local fh = type(f) == "string" and assert(io.open(f)) or f
	local it = fh:lines()
	return function()
		for l in it do
			if l:find("%S") then return M.decode(l) end
		end
	end
end

return M
