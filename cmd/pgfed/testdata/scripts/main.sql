select 'in main';
select * frm t;
drop table if exists nosuch;
\bogus
\d nosuch
\ir included.sql
\i testdata/scripts/nosuch.sql
select 'unterminated at end of file'
