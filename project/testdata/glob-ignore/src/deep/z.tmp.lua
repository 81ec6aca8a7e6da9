-- src/deep/z.tmp.lua
return nil
