DROP TABLE bus_dead_letters;
DROP TABLE bus_positions;
DROP TABLE bus_messages;
