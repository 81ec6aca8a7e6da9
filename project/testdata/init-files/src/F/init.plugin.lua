-- F/init.plugin.lua
return "init.plugin.lua"
