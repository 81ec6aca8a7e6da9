-- K/Init.lua
return "Init.lua"
