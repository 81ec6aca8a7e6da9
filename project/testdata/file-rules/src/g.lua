-- g.lua
return nil
