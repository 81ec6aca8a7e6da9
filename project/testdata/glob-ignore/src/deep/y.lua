-- src/deep/y.lua
return nil
