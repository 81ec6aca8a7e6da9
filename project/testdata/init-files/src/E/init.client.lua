-- E/init.client.lua
return "init.client.lua"
