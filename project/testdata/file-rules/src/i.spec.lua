-- i.spec.lua
return nil
