module orcs

go 1.26
