-- xdtwatch: what xdt-watch's profiles share (require "xdtwatch"):
-- a system call's result as text, and exact-then-sampled percentiles.
local M = {}

M.errno = {
	[1] = "EPERM", [2] = "ENOENT", [3] = "ESRCH", [4] = "EINTR", [5] = "EIO",
	[6] = "ENXIO", [7] = "E2BIG", [8] = "ENOEXEC", [9] = "EBADF",
	[10] = "ECHILD", [11] = "EAGAIN", [12] = "ENOMEM", [13] = "EACCES",
	[14] = "EFAULT", [16] = "EBUSY", [17] = "EEXIST", [18] = "EXDEV",
	[19] = "ENODEV", [20] = "ENOTDIR", [21] = "EISDIR", [22] = "EINVAL",
	[23] = "ENFILE", [24] = "EMFILE", [25] = "ENOTTY", [27] = "EFBIG",
	[28] = "ENOSPC", [29] = "ESPIPE", [30] = "EROFS", [32] = "EPIPE",
	[36] = "ENAMETOOLONG", [38] = "ENOSYS", [40] = "ELOOP",
}

-- "= 3", or "= -1 ENOENT" (xdt's syscall return: -1 and errno on failure)
function M.result(rv, errno)
	if rv == -1 and errno and errno ~= 0 then
		return "= -1 " .. (M.errno[errno] or ("errno " .. errno))
	end
	return "= " .. tostring(rv)
end

--[[
A distribution of non-negative integers with percentiles.  Every value
is kept while there are at most `cap` of them, so a short run's
percentiles are exact; past that a uniform reservoir sample of `cap`
values stands in for them (Vitter's algorithm R), so a watch of any
length holds bounded memory, and its log2 histogram and count, min, max
and sum stay exact.
--]]
local Dist = {}
Dist.__index = Dist

function M.dist(cap)
	return setmetatable({ cap = cap or 100000, n = 0, sum = 0, kept = {},
		buckets = {} }, Dist)
end

-- DTrace's quantize() bucket of v: 0, or the power of two at or below it
local function bucket(v)
	if v <= 0 then return v == 0 and 0 or -1 end
	local b = 1
	while b * 2 <= v and b < (1 << 62) do b = b * 2 end
	return b
end

function Dist:add(v)
	self.n = self.n + 1
	self.sum = self.sum + v
	if not self.min or v < self.min then self.min = v end
	if not self.max or v > self.max then self.max = v end
	local b = bucket(v)
	self.buckets[b] = (self.buckets[b] or 0) + 1
	if #self.kept < self.cap then
		self.kept[#self.kept + 1] = v
		self.sorted = nil
	else
		local j = math.random(1, self.n)
		if j <= self.cap then
			self.kept[j] = v
			self.sorted = nil
		end
	end
end

-- The p-th percentile (0 < p <= 100), nearest rank: the smallest value
-- with at least p% of the values at or below it.  exact says whether it
-- came from every value.
function Dist:percentile(p)
	if self.n == 0 then return nil end
	if not self.sorted then
		table.sort(self.kept)
		self.sorted = true
	end
	local k = #self.kept
	local rank = math.max(1, math.ceil(p / 100 * k))
	return self.kept[rank], self.n <= self.cap
end

-- The log2 histogram as DTrace's quantize() prints it (value, bar, count),
-- with a zero row either side of the used range.
function Dist:histogram()
	local keys = {}
	for b in pairs(self.buckets) do keys[#keys + 1] = b end
	table.sort(keys)
	if #keys == 0 then return "" end
	local lo, hi = keys[1], keys[#keys]
	local rows, b = {}, lo > 1 and lo // 2 or (lo == 1 and 0 or lo - 1)
	rows[#rows + 1] = "           value  ------------- Distribution ------------- count"
	local function row(v)
		local c = self.buckets[v] or 0
		local bar = math.floor(c * 40 / self.n + 0.5)
		rows[#rows + 1] = string.format("%16d |%s%s %d", v, string.rep("@", bar),
			string.rep(" ", 40 - bar), c)
	end
	row(b)
	b = lo
	while b <= hi do
		row(b)
		b = b <= 0 and b + 1 or b * 2
	end
	row(b)
	return table.concat(rows, "\n")
end

return M
