-- src/both.lua
return nil
