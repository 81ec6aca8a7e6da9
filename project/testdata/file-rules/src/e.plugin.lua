-- e.plugin.lua
return nil
