-- D/init.server.lua
return "init.server.lua"
