-- src/a.spec.lua
return nil
