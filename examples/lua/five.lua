-- The five-line consumer (README): each read(2) by dd, with its size.
local h = require("xdt").open()
h:compile[[syscall::read:entry /execname == "dd"/ { trace(pid); trace(arg2); }]]
h:go()
h:loop{ seconds = tonumber(arg[1]) or 5, record = function(r) print(r.pid, r.arg2) end }
