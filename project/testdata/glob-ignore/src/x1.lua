-- src/x1.lua
return nil
