-- src/x3.lua
return nil
