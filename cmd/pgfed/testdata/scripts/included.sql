-- included by main.sql through \ir
select 'in included';
select boom;
