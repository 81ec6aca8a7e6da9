-- J/other.server.lua
return "other.server.lua"
