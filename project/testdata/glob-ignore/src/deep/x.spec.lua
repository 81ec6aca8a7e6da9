-- src/deep/x.spec.lua
return nil
