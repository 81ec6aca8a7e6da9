-- src/out.b.lua
return nil
