-- src/again.lua
return nil
