-- src/a.lua
return nil
