-- sub/code/t.spec.lua
return nil
