-- sub/code/x.b.lua
return nil
