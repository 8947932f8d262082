public let hibiVersion = "0.1.0"
