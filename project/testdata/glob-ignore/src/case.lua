-- src/case.lua
return nil
