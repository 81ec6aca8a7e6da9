-- sub/code/a.lua
return nil
