return "ÿş"
