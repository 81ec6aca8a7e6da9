-- J/child.lua
return "child.lua"
