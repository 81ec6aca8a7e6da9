-- src/x2.lua
return nil
