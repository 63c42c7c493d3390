-- Loads a small table; its second statement fails.
insert into t values (3, 'three'), (4, 'four');
insert into t values ('five', 5);
select count(*) from t;
\echo loaded from :file
