-- F/init.client.lua
return "init.client.lua"
