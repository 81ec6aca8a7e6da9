-- c.client.lua
return nil
