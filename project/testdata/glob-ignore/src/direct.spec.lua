-- src/direct.spec.lua
return nil
