-- B/init.lua
return "init.lua"
