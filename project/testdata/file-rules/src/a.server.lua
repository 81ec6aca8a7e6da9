-- a.server.lua
return nil
