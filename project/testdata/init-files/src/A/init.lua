-- A/init.lua
return "init.lua"
